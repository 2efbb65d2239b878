# The fixtures of the jobwire test kit (pip install "jobwire[testing]"): jobwire_engine, jobwire_test.
pytest_plugins = ["jobwire.testing"]
