"""Game records: the record document (export, import, its digest) and the rebuilding of logs
stored before the log was made of events."""
