"""The engine-neutral core of distributed runs (Ray, Spark): joined rows in, mergeable
partition states out. Nothing here imports ray or pyspark (docs/distributed.md)."""
