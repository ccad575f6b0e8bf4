"""The runs wing: dataset runs, the run store with its schema, stored records, batches."""
