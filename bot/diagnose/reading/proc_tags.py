"""What vLLM and Ray write between a process's name and its pid in the tag before each line of a process's output:
Ray's "rank=1", vLLM 0.10's worker ranks "TP3", "DP0_TP1" ("(VllmWorker TP3 pid=2322)"). Every reader of a process
tag (the cleaner, the record splitter, the facts, the JSON log reader, the signature) takes it from here."""

PROC_QUALIFIER = r"(?:rank=\d+|[A-Z]{2}\d+(?:_[A-Z]{2}\d+)*)"
