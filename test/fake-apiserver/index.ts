export * from './types';
export { startFakeApiServer, FakeKubeApiServer } from './server';
export { encodeContinue } from './list';
export { loadClientNode } from './client-node';
export type { ClientNode } from './client-node';
export { waitFor } from './wait';
export { http, openWatch } from './http';
export type { HttpReply, OpenWatch } from './http';
