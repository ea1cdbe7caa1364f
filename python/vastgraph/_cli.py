"""The ``vastgraph`` command this package installs: the command line of the ``vastgraph``
binary (``vastgraph --help``), compiled into the package's extension, so that one build serves
the shell and Python alike."""

import sys


def main() -> None:
    from vastgraph import _native

    sys.exit(_native.cli_main(sys.argv[1:]))


if __name__ == "__main__":
    main()
