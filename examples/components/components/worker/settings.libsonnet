{
  image: 'registry.example.com/shop/worker:' + std.extVar('image_tag'),
  queue: 'orders',
  queues: ['orders', 'refunds'],
  replicas: { dev: 1, prod: 4 },
}
