"""The S3 client suite: S3 behaviour against every target (fixtures in
tests/conftest.py). Run with tests/run.sh."""
