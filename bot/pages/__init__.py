"""The web board's service side: what a table's page shows, and the signed links to it."""
