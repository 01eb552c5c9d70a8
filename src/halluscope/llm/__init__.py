"""LLM endpoints: one client (retries, cache, cost, redaction) for every judge that asks one."""
