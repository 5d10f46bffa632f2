"""Where tables are kept: the store interface and its backends (``sqlite``)."""
