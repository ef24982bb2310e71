"""A real MCP 2026-07-28 client, the official Python SDK (`mcp`, pinned in scripts/install-deps.sh), driving the
`gatehouse` binary over stdio or streamable HTTP for the e2e tests (tests/e2e/stdio.rs, tests/e2e/http.rs).

It plays an assistant: discovers the server (or pins the revision), lists the tools, listens for changes of
server://auth-status, finds the sandbox's "Budget 2026", reads from it, writes one cell (which waits for the
person: the Rust test answers the card with `gatehouse approvals`) and reads it back. Each step prints one JSON
line on stdout for the test to check; nothing here decides whether Gatehouse is right.

    mcp2026.py --stdio GATEHOUSE_BIN | --http URL --token TOKEN  [--name NAME] [--mode auto|2026-07-28|legacy] [--value V]
"""

import argparse
import asyncio
import json
import os
import sys

import httpx2
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp_types import Implementation

AUTH_STATUS = "server://auth-status"


def say(step, **fields):
    print(json.dumps({"step": step, **fields}), flush=True)


def text_of(result):
    return "\n".join(block.text for block in result.content if getattr(block, "type", None) == "text")


async def call(client, step, tool, arguments):
    result = await client.call_tool(tool, arguments)
    text = text_of(result)
    say(step, is_error=bool(result.is_error), text=text)
    return result, text


async def scenario(client, value):
    say("connected", protocol=client.protocol_version)
    tools = await client.list_tools()
    say("tools", count=len(tools.tools), names=[tool.name for tool in tools.tools])
    if client.protocol_version == "2026-07-28":
        async with client.listen(resource_subscriptions=[AUTH_STATUS]) as subscription:
            honored = subscription.honored.resource_subscriptions if subscription.honored else None
            say("listen", honored=honored or [])
    else:  # an older revision (mode "legacy"): resources/subscribe instead
        await client.subscribe_resource(AUTH_STATUS)
        say("subscribe")
    found, text = await call(client, "search", "search_spreadsheets", {"query": "Budget 2026"})
    if found.is_error:
        return
    sheet = json.loads(found.content[0].text)["spreadsheets"][0]["id"]
    await call(client, "read", "get_sheet_data", {"spreadsheet_id": sheet, "sheet": "Sales", "range": "A1:F2"})
    written = {"spreadsheet_id": sheet, "sheet": "Sales", "range": "H1", "data": [[value]]}
    await call(client, "write", "update_cells", written)
    await call(client, "readback", "get_sheet_data", {"spreadsheet_id": sheet, "sheet": "Sales", "range": "H1"})


async def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--stdio")
    parser.add_argument("--http")
    parser.add_argument("--token")
    parser.add_argument("--name", default="python-sdk-2026")
    parser.add_argument("--mode", default="auto")
    parser.add_argument("--value", default="from the Python SDK")
    args = parser.parse_args()
    info = Implementation(name=args.name, version="1")
    if args.stdio:
        server = StdioServerParameters(command=args.stdio, args=["serve", "--sandbox"], env=dict(os.environ))
    else:
        http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {args.token}"}, timeout=120)
        server = streamable_http_client(args.http, http_client=http)
    async with Client(server, mode=args.mode, client_info=info, read_timeout_seconds=120) as client:
        await scenario(client, args.value)
    say("done")


if __name__ == "__main__":
    try:
        asyncio.run(main())
    except Exception as error:  # the test shows what failed, and fails on the missing steps
        say("failed", error=f"{type(error).__name__}: {error}")
        sys.exit(1)
