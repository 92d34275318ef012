"""The `loom` command that `pip install .` puts in the environment's bin/ (pyproject's
[project.scripts]): the command-line interface itself, run in this process by the extension, so
a virtual environment has the CLI and the package from one install. A failure prints the CLI's
message and exits non-zero, as the built `loom` binary does."""
import sys

from . import _loom


def main():
    try:
        status = _loom.run(sys.argv[1:])
    except _loom.Error as error:
        print(f"loom: error: {error}", file=sys.stderr)
        status = 1
    sys.exit(status)


if __name__ == "__main__":
    main()
