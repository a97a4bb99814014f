import { startBroker } from '/work/main/src/testing/start-broker.js';
const b = await startBroker({ port: 0, config: { 'num.partitions': 1 }, logLevel: (process.env.LL as any) ?? 'warn' });
console.log('PORT', b.port);
process.on('SIGTERM', async () => { await b.stop(); process.exit(0); });
setTimeout(async () => { await b.stop(); process.exit(0); }, Number(process.env.LIFE ?? 120000));
