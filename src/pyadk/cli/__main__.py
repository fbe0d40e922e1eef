"""`python -m pyadk.cli` is the `pyadk` command."""

from pyadk.cli.main import main

if __name__ == "__main__":
    main()
