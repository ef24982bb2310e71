"""A second, independent Google Sheets MCP server for Gatehouse's MCP client, written with the official Python SDK
(`mcp`, pinned in scripts/install-deps.sh) from the MCP 2026-07-28 specification and Google's published
`get_values` / `update_values` tool pages, not from the emulator (crates/google-fake) that Gatehouse's other
tests use: a bug shared by Gatehouse's client and our own emulator can't hide behind both (issue 17).

It serves streamable HTTP on 127.0.0.1, on a port the system picks, and prints one line when it accepts
connections:

    listening http://127.0.0.1:PORT

with, as Google lays its Workspace MCP servers out under Gatehouse's GATEHOUSE_GOOGLE_ENDPOINT rule:

    /mcp/sheets/v1        get_values and update_values; update_values asks the person with a form first
    /mcp/sheets/v1self    get_values only (for hosts without forms)
    /state                the spreadsheets and what was asked, as JSON, for the test to check

Every request needs `Authorization: Bearer TOKEN`. The server is stateless (2026-07-28: no session; a
2025-11-25 client may still initialize). An `update_values` call on /v1 is answered with an
`InputRequiredResult` holding one form elicitation; the client repeats the call with the person's answer in
`inputResponses` and the `requestState` it was given (the SDK's `RequestStateBoundary` seals it and binds it to
the tool, the arguments and the token). Only `accept` writes; `decline` and `cancel` answer a tool error in
words. A state is redeemed at most once.

    sheets_mcp.py --token TOKEN [--seed JSON]

The seed: {"SPREADSHEET_ID": {"title": "...", "sheets": {"SHEET": [[cell, ...], ...]}}}. The server ends when
its standard input closes (the test that started it is gone).
"""

import argparse
import json
import os
import re
import secrets
import socket
import sys
import threading

import anyio
import jsonschema
import mcp_types as types
import uvicorn
from mcp.server import Server, ServerRequestContext
from mcp.server.auth.provider import AccessToken
from mcp.server.auth.settings import AuthSettings
from mcp.server.request_state import RequestStateBoundary, RequestStateSecurity
from mcp.shared.exceptions import MCPError
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse

# Google's published definitions (developers.google.com/workspace/sheets/api/reference/mcp, tools_list/get_values
# and tools_list/update_values): names, descriptions, input schemas; get_values' output is a ValueRange.
GET_VALUES = {
    "name": "get_values",
    "description": "Returns a range of values from a spreadsheet. Corresponds to spreadsheets.values.get in the REST API.",
    "inputSchema": {
        "type": "object",
        "properties": {
            "spreadsheetId": {"type": "string", "description": "Required. The ID of the spreadsheet to retrieve data from."},
            "range": {"type": "string", "description": "Required. The A1 or R1C1 notation of the range to retrieve values from."},
        },
        "required": ["spreadsheetId", "range"],
    },
    "outputSchema": {
        "type": "object",
        "properties": {
            "range": {"type": "string", "description": "The range the values cover, in A1 notation."},
            "majorDimension": {"type": "string"},
            "values": {"type": "array", "items": {"type": "array"}},
        },
    },
    "annotations": {"title": "Get values", "readOnlyHint": True, "openWorldHint": False},
}
UPDATE_VALUES = {
    "name": "update_values",
    "description": "Sets values in a range of a spreadsheet. Corresponds to spreadsheets.values.update in the REST API.",
    "inputSchema": {
        "type": "object",
        "properties": {
            "spreadsheetId": {"type": "string", "description": "Required. The ID of the spreadsheet to update."},
            "range": {"type": "string", "description": "Required. The A1 notation of the values to update."},
            "values": {
                "type": "array",
                "description": "Required. The data to write: one inner array per row.",
                "items": {"type": "array", "items": {"type": ["string", "number", "boolean", "null"]}},
            },
        },
        "required": ["spreadsheetId", "range", "values"],
    },
    "annotations": {"title": "Update values", "readOnlyHint": False, "destructiveHint": True, "openWorldHint": False},
}

# A new sheet's grid, as Google makes one: 1000 rows, columns A to Z.
GRID_ROWS, GRID_COLUMNS = 1000, 26
# The key of the one form in `inputRequests`; the client answers under the same key.
FORM_KEY = "confirm_update"


class World:
    """The spreadsheets, their cells as stored (typed), and what the clients were asked."""

    def __init__(self, seed):
        self.books = {}
        for book_id, book in seed.items():
            sheets = {name: [list(row) for row in rows] for name, rows in book["sheets"].items()}
            self.books[book_id] = {"title": book["title"], "sheets": sheets}
        self.forms_asked = 0
        self.writes = 0
        self.pending = set()  # the nonces of forms asked and not answered yet

    def snapshot(self):
        return {
            "spreadsheets": self.books,
            "forms_asked": self.forms_asked,
            "pending": len(self.pending),
            "writes": self.writes,
        }


class BadRange(Exception):
    pass


def column_number(letters):
    number = 0
    for letter in letters.upper():
        number = number * 26 + ord(letter) - ord("A") + 1
    return number


def column_letters(number):
    letters = ""
    while number > 0:
        number, rest = divmod(number - 1, 26)
        letters = chr(ord("A") + rest) + letters
    return letters


CELL = re.compile(r"^([A-Za-z]*)(\d*)$")


def split_sheet(text):
    """(the sheet's name, the cells or None) of a range in A1 notation (the Sheets API's "A1 notation" page).
    Without a "!" the whole text comes back as the name: `parse_range` tells a sheet's name from cells."""
    text = text.strip()
    if text.startswith("'"):
        name, i = "", 1
        while i < len(text):
            if text[i] == "'":
                if i + 1 < len(text) and text[i + 1] == "'":
                    name += "'"
                    i += 2
                    continue
                break
            name += text[i]
            i += 1
        else:
            raise BadRange(f"unclosed quote in {text!r}")
        rest = text[i + 1 :]
        if rest == "":
            return name, None
        if not rest.startswith("!"):
            raise BadRange(f"unexpected {rest!r} after the sheet name")
        return name, rest[1:]
    if "!" in text:
        name, cells = text.rsplit("!", 1)
        return name, cells
    # No "!": a sheet's name, or cells of the first sheet; `parse_range` decides which.
    return text, None


def parse_range(book, text):
    """(sheet name, first row, first column, last row, last column), 1-based and inclusive, in the sheet's grid."""
    name, cells = split_sheet(text)
    sheets = book["sheets"]
    bare = cells is None and not text.strip().startswith("'")
    if bare and not any(title.lower() == name.lower() for title in sheets):
        # Not a sheet's name: cells of the first sheet ("A1:B2").
        name, cells = next(iter(sheets)), name
    if name not in sheets:
        folded = [title for title in sheets if title.lower() == name.lower()]
        if not folded:
            raise BadRange(f"Unable to parse range: {text}")
        name = folded[0]
    if cells is None:
        return name, 1, 1, GRID_ROWS, GRID_COLUMNS
    start, _, end = cells.partition(":")
    first, second = CELL.match(start), CELL.match(end or start)
    if not first or not second:
        raise BadRange(f"Unable to parse range: {text}")
    c1, r1 = first.groups()
    c2, r2 = second.groups()
    if not end and not (c1 and r1):
        raise BadRange(f"Unable to parse range: {text}")
    top = int(r1) if r1 else 1
    left = column_number(c1) if c1 else 1
    bottom = int(r2) if r2 else GRID_ROWS
    right = column_number(c2) if c2 else GRID_COLUMNS
    if top < 1 or left < 1 or bottom < top or right < left:
        raise BadRange(f"Unable to parse range: {text}")
    return name, top, left, min(bottom, GRID_ROWS), min(right, GRID_COLUMNS)


def quoted(name):
    return name if re.fullmatch(r"[A-Za-z0-9_]+", name) else "'" + name.replace("'", "''") + "'"


def a1(name, top, left, bottom, right):
    """A range as Google answers it: `Sheet1!A1` for one cell, `Sheet1!A1:B2` otherwise."""
    first = f"{column_letters(left)}{top}"
    if (top, left) == (bottom, right):
        return f"{quoted(name)}!{first}"
    return f"{quoted(name)}!{first}:{column_letters(right)}{bottom}"


def formatted(cell):
    """A stored cell as FORMATTED_VALUE shows it (general number format)."""
    if cell is None:
        return ""
    if isinstance(cell, bool):
        return "TRUE" if cell else "FALSE"
    if isinstance(cell, float) and cell.is_integer():
        return str(int(cell))
    return str(cell)


def read(world, arguments):
    book = world.books.get(arguments["spreadsheetId"])
    if book is None:
        raise BadRange(f"Requested entity was not found: spreadsheet {arguments['spreadsheetId']}")
    name, top, left, bottom, right = parse_range(book, arguments["range"])
    grid = book["sheets"][name]
    rows = []
    for r in range(top, bottom + 1):
        row = grid[r - 1] if r - 1 < len(grid) else []
        cells = [formatted(row[c - 1]) if c - 1 < len(row) else "" for c in range(left, right + 1)]
        while cells and cells[-1] == "":
            cells.pop()
        rows.append(cells)
    while rows and not rows[-1]:
        rows.pop()
    answer = {"range": a1(name, top, left, bottom, right), "majorDimension": "ROWS"}
    if rows:  # Google leaves `values` out of an empty range
        answer["values"] = rows
    return answer


def write(world, arguments):
    book = world.books.get(arguments["spreadsheetId"])
    if book is None:
        raise BadRange(f"Requested entity was not found: spreadsheet {arguments['spreadsheetId']}")
    name, top, left, bottom, right = parse_range(book, arguments["range"])
    values = arguments["values"]
    height = len(values)
    width = max((len(row) for row in values), default=0)
    if (top, left) == (bottom, right):
        # One cell is where the values start: they take the room they need.
        bottom, right = GRID_ROWS, GRID_COLUMNS
    if top + height - 1 > bottom:
        raise BadRange(
            f"Requested writing within range [{arguments['range']}], but tried writing to row [{top + height - 1}]"
        )
    if left + width - 1 > right:
        raise BadRange(
            f"Requested writing within range [{arguments['range']}], but tried writing to column "
            f"[{column_letters(left + width - 1)}]"
        )
    grid = book["sheets"][name]
    for i, row in enumerate(values):
        r = top + i - 1
        while len(grid) <= r:
            grid.append([])
        for j, cell in enumerate(row):
            if cell is None:  # null: the cell is left as it is
                continue
            c = left + j - 1
            while len(grid[r]) <= c:
                grid[r].append(None)
            grid[r][c] = None if cell == "" else cell
    world.writes += 1
    cells = sum(len(row) for row in values)
    return {
        "spreadsheetId": arguments["spreadsheetId"],
        "updatedRange": a1(name, top, left, top + max(height, 1) - 1, left + max(width, 1) - 1),
        "updatedRows": height,
        "updatedColumns": width,
        "updatedCells": cells,
    }


def tool_error(text):
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)], is_error=True)


def tool_result(value):
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=json.dumps(value))], structured_content=value
    )


def has_form_elicitation(ctx):
    capabilities = ctx.session.client_capabilities
    elicitation = capabilities.elicitation if capabilities is not None else None
    # A bare `elicitation: {}` (from before modes) counts as forms; url-only does not.
    return elicitation is not None and (elicitation.form is not None or elicitation.url is None)


def make_server(world, name, tools, forms_per_round=1):
    definitions = {tool["name"]: types.Tool.model_validate(tool) for tool in tools}

    async def list_tools(ctx: ServerRequestContext, params):
        return types.ListToolsResult(tools=list(definitions.values()))

    async def call_tool(ctx: ServerRequestContext, params: types.CallToolRequestParams):
        if params.name not in definitions:
            raise MCPError(code=types.INVALID_PARAMS, message=f"Unknown tool: {params.name}")
        arguments = params.arguments or {}
        try:
            jsonschema.validate(arguments, definitions[params.name].input_schema)
        except jsonschema.ValidationError as error:
            return tool_error(f"Invalid arguments for {params.name}: {error.message}")
        try:
            if params.name == "get_values":
                return tool_result(read(world, arguments))
            return await update_values(ctx, params, arguments)
        except BadRange as error:
            return tool_error(str(error))

    async def update_values(ctx, params, arguments):
        if ctx.protocol_version < "2026-07-28":
            return tool_error("update_values asks the person with a form: connect with MCP 2026-07-28.")
        if not has_form_elicitation(ctx):
            required = types.ClientCapabilities(
                elicitation=types.ElicitationCapability(form=types.FormElicitationCapability())
            )
            raise MCPError(
                code=types.MISSING_REQUIRED_CLIENT_CAPABILITY,
                message="update_values needs a client that shows forms (elicitation.form)",
                data=types.MissingRequiredClientCapabilityErrorData(required_capabilities=required).model_dump(
                    by_alias=True, mode="json", exclude_none=True
                ),
            )
        answer = (params.input_responses or {}).get(FORM_KEY)
        # The SDK's boundary has already checked the state: sealed by this server, for this tool, these
        # arguments and this token, unexpired. It is redeemed once here.
        if answer is not None and params.request_state is not None:
            nonce = json.loads(params.request_state).get("nonce")
            if nonce not in world.pending:
                raise MCPError(code=types.INVALID_PARAMS, message="This approval form was answered already.")
            world.pending.discard(nonce)
            if not isinstance(answer, types.ElicitResult):
                return tool_error("The answer to the approval form is not an elicitation result.")
            if answer.action == "accept":
                return tool_result(write(world, arguments))
            return tool_error(
                f"The user did not allow the update of {arguments['range']} ({answer.action}): nothing was written."
            )
        book = world.books.get(arguments["spreadsheetId"])
        if book is None:
            return tool_error(f"Requested entity was not found: spreadsheet {arguments['spreadsheetId']}")
        parse_range(book, arguments["range"])
        nonce = secrets.token_hex(16)
        world.pending.add(nonce)
        world.forms_asked += 1
        form = types.ElicitRequest(
            params=types.ElicitRequestFormParams(
                message=f"Allow this app to change the cells {arguments['range']} of the spreadsheet “{book['title']}”?",
                requested_schema={"type": "object", "properties": {}},
            )
        )
        # A misbehaving server (`--forms-per-round N`) asks for the same approval N times in one round.
        requests = {FORM_KEY: form} | {f"{FORM_KEY}_{n}": form for n in range(2, forms_per_round + 1)}
        return types.InputRequiredResult(input_requests=requests, request_state=json.dumps({"nonce": nonce}))

    server = Server(
        name,
        version="1",
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        get_tool_input_schema=lambda tool: definitions[tool].input_schema if tool in definitions else None,
    )
    server.middleware.append(RequestStateBoundary(RequestStateSecurity.ephemeral(), default_audience=name))
    return server


class FixedToken:
    """The SDK's bearer check, with the one token the test passed."""

    def __init__(self, token):
        self.token = token

    async def verify_token(self, token):
        if not secrets.compare_digest(token, self.token):
            return None
        return AccessToken(token=token, client_id="gatehouse-test", scopes=[], subject="ada@example.com")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--token", required=True)
    parser.add_argument("--seed", default='{"budget-2026": {"title": "Budget", "sheets": {"Sheet1": [["Item", "Cost"]]}}}')
    parser.add_argument("--forms-per-round", type=int, default=1, help="how many forms update_values asks at once")
    args = parser.parse_args()
    world = World(json.loads(args.seed))
    verifier = FixedToken(args.token)
    # The issuer is never contacted: the token is checked by `FixedToken` alone.
    auth = AuthSettings(issuer_url="http://127.0.0.1/issuer", resource_server_url=None)
    full = make_server(world, "sheets-v1", [GET_VALUES, UPDATE_VALUES], args.forms_per_round)
    restricted = make_server(world, "sheets-v1self", [GET_VALUES])
    apps = {
        "/mcp/sheets/v1": full.streamable_http_app(
            streamable_http_path="/mcp/sheets/v1", stateless_http=True, auth=auth, token_verifier=verifier
        ),
        "/mcp/sheets/v1self": restricted.streamable_http_app(
            streamable_http_path="/mcp/sheets/v1self", stateless_http=True, auth=auth, token_verifier=verifier
        ),
    }

    async def app(scope, receive, send):
        if scope["type"] != "http":
            return
        path = scope["path"]
        if path in apps:
            return await apps[path](scope, receive, send)
        if path == "/state":
            request = Request(scope, receive)
            if request.headers.get("authorization") != f"Bearer {args.token}":
                response = PlainTextResponse("unauthorized", status_code=401)
            else:
                response = JSONResponse(world.snapshot())
            return await response(scope, receive, send)
        return await PlainTextResponse("not found", status_code=404)(scope, receive, send)

    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    listener.listen(64)
    port = listener.getsockname()[1]

    # The test that started this server holds its standard input: when that closes, the server ends.
    def watch_stdin():
        sys.stdin.read()
        os._exit(0)

    threading.Thread(target=watch_stdin, daemon=True).start()

    async def serve():
        config = uvicorn.Config(app, log_level="warning", lifespan="off")
        http = uvicorn.Server(config)
        async with full.session_manager.run(), restricted.session_manager.run():
            print(f"listening http://127.0.0.1:{port}", flush=True)
            await http.serve(sockets=[listener])

    anyio.run(serve)


if __name__ == "__main__":
    main()
