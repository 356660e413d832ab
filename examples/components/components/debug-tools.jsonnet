// Only in environments that include it (dev).
{
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'debug-shell' },
  spec: { containers: [{ name: 'shell', image: 'busybox:1.36', command: ['sleep', 'infinity'] }] },
}
