import { Counter } from 'prom-client';
import { productMetric } from '../metrics/record';

/** Items put in carts; undefined where the process has no registry (MANAGEMENT_PORT=0, tests). */
export const itemsAdded = () =>
  productMetric(
    'cart_items_added_total',
    (registers) => new Counter({ name: 'cart_items_added_total', help: 'Items put in carts.', registers }),
  );
