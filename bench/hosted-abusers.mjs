// The abusive tenants of `npm run bench:hosted` (two flooding tenants, and one abusing through 12 child sandboxes),
// in a process of their own: forked by bench/hosted.mjs and driven
// over IPC ({type: 'start', baseUrl, keys, options} -> 'started'; {type: 'stop', waitForCutsMs} -> 'stopped' with
// the outcomes). Building 1 MB bodies and keeping 1,000 sockets costs CPU; here it cannot delay the event loop
// that times the well-behaved tenants, so their latency measures the server, not the load generator.
import { startAbusers } from './lib/noisy.mjs';
import { startTenantAbuse } from './lib/tenant-abuse.mjs';

let running;
process.on('message', async (msg) => {
  if (msg.type === 'start') {
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
