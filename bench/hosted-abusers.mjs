// The abusive tenants of `npm run bench:hosted`, in a process of their own: forked by bench/hosted.mjs and driven
// over IPC ({type: 'start', baseUrl, keys, options} -> 'started'; {type: 'stop', waitForCutsMs} -> 'stopped' with
// the outcomes). Building 1 MB bodies and keeping 1,000 sockets costs CPU; here it cannot delay the event loop
// that times the well-behaved tenants, so their latency measures the server, not the load generator.
import { startAbusers } from './lib/noisy.mjs';

let running;
process.on('message', async (msg) => {
  if (msg.type === 'start') {
    running = await startAbusers(msg.baseUrl, msg.keys, msg.options);
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
