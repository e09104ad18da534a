// The upstream simulator with no artificial delay, in its own process.
import { startSimulator } from '../simulator/index.ts';
import { answerStats } from './proc-stats.ts';

const sim = await startSimulator({ latencyMs: 0 });
answerStats();
process.send?.({ type: 'ready', port: sim.port });
