"""One GET of URL by one HTTP client, the exception left uncaught (its traceback is what a paste shows):
`net_forms.py CLIENT URL` with CLIENT urllib3 (Retry off: the error itself), urllib3-retry (the default
Retry: MaxRetryError), requests, httpx, httpx2, aiohttp, hub (huggingface_hub.hf_hub_download of URL as
'<repo>/<file>'), openai (OpenAI(base_url=URL).models.list(), no retries: another host's client over httpx). Timeouts are 3 s (connect and read)."""
import sys

client, url = sys.argv[1], sys.argv[2]
print("client", client, __import__({"hub": "huggingface_hub"}.get(client, client.split("-")[0])).__version__, url, flush=True)
if client == "urllib3":
    import urllib3
    urllib3.PoolManager().request("GET", url, timeout=urllib3.Timeout(connect=3, read=3), retries=False)
elif client == "urllib3-retry":
    import urllib3
    urllib3.PoolManager().request("GET", url, timeout=urllib3.Timeout(connect=3, read=3))
elif client == "requests":
    import requests
    requests.get(url, timeout=(3, 3))
elif client in ("httpx", "httpx2"):
    hx = __import__(client)
    hx.get(url, timeout=3)
elif client == "aiohttp":
    import asyncio, aiohttp

    async def main():
        async with aiohttp.ClientSession(trust_env=True, timeout=aiohttp.ClientTimeout(connect=3, sock_read=3)) as s:
            async with s.get(url) as r:
                await r.read()
    asyncio.run(main())
elif client == "hub":
    from huggingface_hub import hf_hub_download
    org, name, _resolve, _rev, f = url.split("://", 1)[1].split("/", 1)[1].split("/", 4)
    hf_hub_download("%s/%s" % (org, name), f)
elif client == "openai":
    import openai
    openai.OpenAI(base_url=url, api_key="EMPTY", max_retries=0, timeout=3).models.list()
