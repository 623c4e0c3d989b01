"""HTTP API of `celltrace serve`: routes, dependencies, limits and error handling."""
