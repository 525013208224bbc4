/**
 * run_shell (a tool of the filesystem handler): one command line run by /bin/sh in the conversation's workspace, inside
 * the sandbox, with a time limit and capped output. It never runs unconfined: where the sandbox does not work, or
 * the owner chose sandbox.mode none, it refuses with the reason.
 */
import { z } from "zod";
import type { Sandbox } from "../infra/sandbox/index.js";
import { implementTool, ToolError, type ToolHandlerSpec } from "../core/tools.js";

/** The name sandbox.network is looked up by for run_shell. */
export const SHELL_NETWORK_NAME = "run_shell";
const COMMAND_LIMIT_CHARS = 10_000;
/** Room for setting up and removing the sandbox, on top of the command's own limit. */
const SETUP_OVERHEAD_MS = 15_000;

function shellTool(sandbox: Sandbox) {
  const { timeoutMs, maxOutputBytes } = sandbox.config.shell;
  return implementTool(
    {
      name: "run_shell",
      category: "File System",
      shortDescription: "Run a shell command line in the workspace, in a sandbox without network",
      description: [
        "Runs one command line with /bin/sh in this conversation's workspace (the current directory) and returns",
        "its exit code, stdout, stderr and duration. It runs in a sandbox: only the workspace is writable, there is",
        "no network, and nothing of the gateway (its files, settings, other conversations) is visible.",
        "",
        "When to use: to process workspace files with standard tools (python3, sed, awk, sort, grep, tar...).",
        "",
        "Caveats:",
        `- Stopped after ${timeoutMs} ms (or timeout_ms if smaller); everything it started is killed with it.`,
        `- stdout and stderr are each cut at ${maxOutputBytes} bytes.`,
        "- No network and no package installs; nothing survives the call except files in the workspace.",
        "",
        'Example: run_shell({"command": "wc -l notes/*.md | sort -n"})',
      ].join("\n"),
      input: z.object({
        command: z.string().min(1).max(COMMAND_LIMIT_CHARS).describe("The command line, as typed in a POSIX shell"),
        timeout_ms: z.number().int().min(100).max(timeoutMs).optional().describe(`Time limit in ms (at most ${timeoutMs})`),
      }),
      risk: "exec",
      timeoutMs: timeoutMs + SETUP_OVERHEAD_MS,
    },
    async (input, ctx) => {
      if (!sandbox.status.ok) throw new ToolError(`run_shell is unavailable on this gateway: ${sandbox.unavailable}`, "failed");
      if (sandbox.status.mode === "none") {
        throw new ToolError("run_shell is unavailable: the owner turned the sandbox off (sandbox.mode: none), and it never runs unconfined.", "failed");
      }
      const request = {
        command: () => ({ command: "/bin/sh", args: ["-c", input.command] }),
        workspaceDir: ctx.workspaceDir,
        networkName: SHELL_NETWORK_NAME,
        timeoutMs: input.timeout_ms ?? timeoutMs,
        maxOutputBytes,
        signal: ctx.signal,
      };
      return sandbox.run(request, async (result) => result);
    },
  );
}

export function createShellHandler(sandbox: Sandbox): ToolHandlerSpec {
  return { name: "shell", tools: [shellTool(sandbox)] };
}
