"""The reading of a log: text in, messages, the root-error candidates and the log's facts out.

    logtext     the paste made plain: Slack escapes, fences, ANSI, JSON records, size bound
    tracebacks  error messages: headers and process tags peeled, wrapped lines joined, wrappers unwrapped
    facts       versions, GPU, engine arguments, engine starts, the program that printed it
    signature   an error line with its variable parts masked, to count and cluster failures

Pure: no I/O, no knowledge of any rule or release.
"""
