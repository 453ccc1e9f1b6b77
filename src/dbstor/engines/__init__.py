"""Database engines: one module each behind one contract (base.Engine) and one registry."""
