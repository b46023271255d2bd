// The abusive tenants of `npm run bench:hosted` (two flooding tenants, and one abusing through 12 child sandboxes; in
// a phase of their own, two abusing the clock: bench/lib/clock-abuse.mjs), in a process of their own: forked by
// bench/hosted.mjs and driven over IPC ({type: 'start', baseUrl, keys, options} -> 'started'; {type: 'prepareClock',
// baseUrl, keys} -> 'prepared', {type: 'startClock', baseUrl} -> 'started'; {type: 'stop', waitForCutsMs} ->
// 'stopped' with the outcomes). Building 1 MB bodies and keeping 1,000 sockets costs CPU; here it cannot delay the event loop
// that times the well-behaved tenants, so their latency measures the server, not the load generator.
import { prepareClockAbuse, startClockAbuse } from './lib/clock-abuse.mjs';
import { startAbusers } from './lib/noisy.mjs';
import { startTenantAbuse } from './lib/tenant-abuse.mjs';

let running;
/** Per server: what the clock abusers prepared (cards, runs, the snapshot), once, before the phases. */
const clockState = new Map();
process.on('message', async (msg) => {
  if (msg.type === 'prepareClock') {
    clockState.set(msg.baseUrl, await prepareClockAbuse(msg.baseUrl, msg.keys));
    process.send({ type: 'prepared' });
  } else if (msg.type === 'startClock') {
    // The tenants of bench/lib/clock-abuse.mjs alone: an advancing tenant and an importing one.
    const clock = startClockAbuse(msg.baseUrl, clockState.get(msg.baseUrl));
    running = { stop: () => clock.stop() };
    process.send({ type: 'started' });
  } else if (msg.type === 'start') {
    const [a, b, parent] = msg.keys;
    const floods = await startAbusers(msg.baseUrl, [a, b], msg.options);
    // The third abuser is a tenant that abuses through its child sandboxes (bench/lib/tenant-abuse.mjs).
    const tenant = parent && msg.options.tenant ? await startTenantAbuse(msg.baseUrl, parent) : undefined;
    running = {
      async stop(waitForCutsMs) {
        const [outcomes, ofTenant] = await Promise.all([floods.stop(waitForCutsMs), tenant?.stop()]);
        for (const [k, v] of Object.entries(ofTenant ?? {})) outcomes[`tenant of 12 children: ${k}`] = v;
        return outcomes;
      },
    };
    process.send({ type: 'started' });
  } else if (msg.type === 'stop') {
    const outcomes = await running.stop(msg.waitForCutsMs);
    running = undefined;
    process.send({ type: 'stopped', outcomes });
  } else if (msg.type === 'exit') {
    process.exit(0);
  }
});
process.send({ type: 'ready' });
