"""One module per `realcompanion` subcommand; each defines `register(subparsers)`."""
