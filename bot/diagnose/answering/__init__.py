"""The answering: rank the candidates the knowledge sources found, derive values from the log's
numbers, keep the advice true for the log's release, and write the report.

    rank          the first real error wins; roots > hints > wrappers; a wrapper with its cause visible
    advice        values from the log (the largest max_model_len that fits, …) and the ready-to-paste call
    release_true  no flag, keyword or variable the log's release lacks
    report        Diagnosis and Report, template filling, the shared texts
"""
