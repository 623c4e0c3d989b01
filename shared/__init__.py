"""Table model, cell graph, schemas and file-mode I/O shared by every celltrace component."""
