from acai_desktop.cli import main

raise SystemExit(main())
