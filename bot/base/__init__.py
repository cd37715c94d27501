"""What every room of vllm-doctor may use, and which uses none of them: records, PEP 440 ranges,
lazily compiled regexes, the shipped data files, the error a user fixes, the options every
command's parser shares."""
