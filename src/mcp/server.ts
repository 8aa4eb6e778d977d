// `fettle mcp`: an MCP server over stdio, for agents without hooks and for agents that should ask fettle
// explicitly. Its own bundle (dist/mcp.js, loaded only by `fettle mcp`), so the MCP SDK never weighs on the hook
// or on the other commands. Every change it makes carries its session (a ladder's when the client names none) and
// the agent's name from `initialize`. stdout carries protocol messages only; anything else goes to stderr.
import { randomUUID } from 'node:crypto';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import { loadConfig } from '../config';
import { processStart } from '../io/ancestry';
import { cleanUpOnSignals } from '../io/cleanup';
import { commandSession } from '../protocol/select/command-session';
import { armFailpoints } from '../io/failpoint';
import { applyTool } from './apply-tool';
import { feedbackTool, withFeedback } from './feedback-tool';
import { checkArguments } from './arguments';
import { confirmTool, discardTool, rollbackTool } from './decide-tools';
import { agentOfClient } from '../core/mcp-clients';
import { type Args, dirOf, type McpEdge, text, toolError, type ToolResult } from './edge';
import { logTool, showTool, statusTool } from './history-tools';
import { readTool } from './read-tool';
import { rewindTool } from './rewind-tool';
import { TOOLS } from './tool-list';
import { writeFile, writeFiles } from './write-tools';
import { LineTransport } from './stdio';

const VERSION = '0.1.0';

const LOOSE_CALL = CallToolRequestSchema.pick({ method: true }).loose() as unknown as typeof CallToolRequestSchema;

const HANDLERS: Record<string, (edge: McpEdge, args: Args) => Promise<ToolResult>> = {
  fettle_write: writeFile,
  fettle_write_files: writeFiles,
  fettle_confirm: confirmTool,
  fettle_discard: discardTool,
  fettle_rollback: rollbackTool,
  fettle_status: statusTool,
  fettle_log: logTool,
  fettle_show: showTool,
  fettle_read: readTool,
  fettle_apply: applyTool,
  fettle_feedback: feedbackTool,
  fettle_rewind: rewindTool,
};

const INSTRUCTIONS =
  'fettle keeps a git-backed record of every file written through these tools. Write files with fettle_write (or fettle_write_files for one changeset): a small change is written and recorded; a large rewrite is staged, not written, and you are shown its diff: apply it with fettle_confirm or drop it with fettle_discard, never by writing again. fettle_rollback undoes any recorded change. fettle_status says what waits for a decision.';

export const callTool = async (edge: McpEdge, name: string, given: unknown): Promise<ToolResult> => {
  const spec = TOOLS.find((t) => t.name === name);
  const run = HANDLERS[name];
  // An unknown tool is a protocol error (the client asked for something this server never listed).
  if (!spec || !run)
    throw new McpError(
      ErrorCode.InvalidParams,
      `Unknown tool: ${name}. The tools are ${TOOLS.map((t) => t.name).join(', ')}.`,
    );
  const checked = checkArguments(spec.inputSchema, given);
  if (!checked.ok) return { ...text(`fettle: ${name}: ${checked.why}.`), isError: true };
  let result: ToolResult;
  try {
    result = await run(edge, checked.args);
  } catch (error) {
    result = toolError(edge, dirOf(edge, checked.args), error);
  }
  // A person's feedback comes with the next result, whatever the tool (fettle_feedback already took it).
  return name === 'fettle_feedback' ? result : withFeedback(edge, result);
};

export const runMcpServer = async (): Promise<void> => {
  const log = (line: string) => process.stderr.write(line.endsWith('\n') ? line : `${line}\n`);
  armFailpoints(process.env.FETTLE_FAILPOINTS);
  cleanUpOnSignals();
  const server = new Server(
    { name: 'fettle', version: VERSION },
    { capabilities: { tools: { listChanged: false } }, instructions: INSTRUCTIONS },
  );
  const edge: McpEdge = {
    cwd: process.cwd(),
    env: process.env,
    script: process.argv[1],
    // A client that names no session gets the ladder's (FETTLE_SESSION, branch, the client's process, directory):
    // the same after this server restarts, so feedback queued for it still arrives.
    session: (
      await commandSession({
        cwd: process.cwd(),
        env: process.env,
        now: () => new Date(),
        config: loadConfig(process.env),
        parent: () => processStart(process.ppid),
      })
    ).id,
    conversation: `mcp-${randomUUID()}`,
    agent: () => agentOfClient(server.getClientVersion()?.name),
    log,
  };
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: TOOLS }));
  // A session closed while a tool call runs lets that call finish (and answer nobody) before the process ends.
  let running = 0;
  let closed = false;
  const settle = () => closed && running === 0 && process.exit(0);
  // Checked against the whole CallToolRequest by the SDK's tools/call wrapper, which answers a malformed one with
  // -32602; the schema given here admits any params so that the check is that one (else a ZodError: -32603).
  server.setRequestHandler(LOOSE_CALL, async (request) => {
    running++;
    try {
      return await callTool(edge, request.params.name, request.params.arguments);
    } finally {
      running--;
      settle();
    }
  });
  server.onerror = (error) => {
    if (edge.env.FETTLE_DEBUG) log(`fettle mcp: ${error.stack ?? error.message}`);
  };
  const transport = new LineTransport(process.stdin, process.stdout);
  // The client closes stdin to end the session (MCP's stdio shutdown): nothing is left running.
  server.onclose = () => {
    closed = true;
    settle();
  };
  process.stdout.on('error', () => process.exit(0));
  await server.connect(transport);
};
