// Drives the plugin (plugin.ts, written by plugin_test.go) as OpenCode
// would: its factory with a context, then each step of $STEPS (a bus event
// to its event hook, or a named hook with input and output), awaiting what
// each returns. The fake logwatch appends each hook it gets to $OUT; the
// drive waits for $WANT of them, then a moment for any extra.
import plugin from "./plugin.ts";
import { readFileSync, existsSync } from "node:fs";

const out = process.env.OUT as string;
const want = Number(process.env.WANT);
const steps = JSON.parse(readFileSync(process.env.STEPS as string, "utf8"));
const hooks: Record<string, (input: any, output: any) => Promise<void>> = await plugin({ directory: "/w", serverUrl: "http://localhost:4096/" });
for (const s of steps) {
	const r = s.hook ? hooks[s.hook](s.input, s.output ?? {}) : hooks.event({ event: s.event });
	if (!(r instanceof Promise)) throw new Error(`hook ${s.hook ?? "event"} returned no promise`);
	await r;
}
const lines = () => (existsSync(out) ? readFileSync(out, "utf8").split("\n").filter((l) => l).length : 0);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
for (let i = 0; i < 400 && lines() < want; i++) await sleep(25);
await sleep(300);
