// oidc-provider ships no types; the bench uses a handful of its calls.
declare module 'oidc-provider' {
  const Provider: any;
  export default Provider;
}
declare module 'oidc-provider/lib/adapters/memory_adapter.js' {
  const MemoryAdapter: any;
  export default MemoryAdapter;
}
declare module 'oidc-provider/lib/helpers/lru.js' {
  const LRU: any;
  export default LRU;
}
