import sys

try:
    from kg.cli import main
except KeyboardInterrupt:  # Ctrl-C while the CLI is still being imported: as after it
    sys.stderr.write("kg: aborted\n")
    sys.exit(130)

sys.exit(main())
