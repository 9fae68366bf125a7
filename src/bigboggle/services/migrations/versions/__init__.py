"""bigboggle's schema revisions, one file each, numbered in order (see bigboggle.services.migrations)."""
