export { startSimulator, type Simulator } from './server.ts';
export { DEFAULT_SIM_KEYS, type SimOptions, type SimContext, type RecordedRequest } from './context.ts';
export type { FaultSpec, FaultKind } from './faults.ts';
