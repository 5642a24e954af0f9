import sys

from evalschema.cli.main import main

sys.exit(main())
