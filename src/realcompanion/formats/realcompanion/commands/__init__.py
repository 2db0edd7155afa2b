"""RealCompanion's own subcommands, one module each with `register(subparsers)`: the command line finds them
through the registry (the format's `commands` part) beside the shared ones in `realcompanion.commands`."""
