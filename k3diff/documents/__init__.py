"""The JSON contract: one module per document, each owning its line or document types, its
writer and its typed reader (`samples`: the `samples.jsonl` log; `runs`: which run a log belongs
to and when logs of different runs may be pooled; `checks`: the self-checks every reader applies
to a document's counts and verdict)."""
