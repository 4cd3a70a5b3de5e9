// logwatch: probe extension
// A template as the pi and omp extensions are (module_test.go loads it):
// its handlers only send.
// __LOGWATCH_SENDER__ (parsers/hookmodule/sender.ts)

export default function (api: any) {
	const on = guarded(api);
	on("start", (_e, ctx) => void send(ctx, "SessionStart"));
	on("prompt", (_e, ctx) => void send(ctx, "UserPromptSubmit"));
	on("tool", (e, ctx) => void send(ctx, "PreToolUse", { tool_name: "bash", tool_input: toolInput(e) }));
	on("toolend", (e, ctx) => void send(ctx, "PostToolUse", { tool_name: "bash", tool_input: toolInput(e) }));
	on("end", (_e, ctx) => void send(ctx, "Stop"));
	// A session's end the agent does not wait on (OpenCode's deleted
	// session): queued as any other event.
	on("gone", (_e, ctx) => void send(ctx, "SessionEnd"));
	on("boom", () => {
		throw new Error("boom");
	});
	on("missing", () => undefined);
	on("quit", (_e, ctx) => sendNow(ctx, "SessionEnd"));
}
