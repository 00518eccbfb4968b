"""Files the user hands the app, and files the app writes whole."""
