"""Class mode (peer instruction): a teacher's class answers each checkpoint together. No Streamlit in this package.

``codes`` makes and checks class codes, teacher secrets and browser ids; ``store`` is the one interface to where
answers live, with two backends (``sqlite_store``: one file, WAL, several replicas on one host; ``redis_store``: a
Redis server, several hosts), chosen by ``POSENC_CLASS_STORE``; ``service`` holds the rules (who may do what, what
an answer may be, the bounds) and turns every bad input into a catalog key, never an exception.
"""
