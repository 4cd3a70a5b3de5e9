// logwatch: probe extension
// A template as the pi and omp extensions are (module_test.go loads it):
// its handlers only send.
// __LOGWATCH_SENDER__ (parsers/hookmodule/sender.ts)

export default function (api: any) {
	const on = guarded(api);
	on("start", (_e, ctx) => void send(ctx, "SessionStart"));
	on("prompt", (_e, ctx) => void send(ctx, "UserPromptSubmit"));
	on("tool", (e, ctx) => void send(ctx, "PreToolUse", { tool_name: "bash", tool_input: toolInput(e) }));
	on("end", (_e, ctx) => void send(ctx, "Stop"));
	on("boom", () => {
		throw new Error("boom");
	});
	on("missing", () => undefined);
	on("quit", (_e, ctx) => sendNow(ctx, "SessionEnd"));
}
