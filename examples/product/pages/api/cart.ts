import type { NextApiRequest, NextApiResponse } from 'next';
import { itemsAdded } from '../../lib/product/metrics';

export default function cart(req: NextApiRequest, res: NextApiResponse) {
  if (req.method !== 'POST') {
    res.setHeader('Allow', 'POST');
    res.status(405).json({ error: 'POST a JSON body: {"sku": "…", "quantity": 1}' });
    return;
  }
  const { sku, quantity } = (req.body ?? {}) as { sku?: unknown; quantity?: unknown };
  if (typeof sku !== 'string' || !Number.isInteger(quantity) || (quantity as number) < 1) {
    res.status(400).json({ error: 'sku must be a string and quantity a whole number from 1' });
    return;
  }
  itemsAdded()?.inc(quantity as number);
  res.status(201).json({ sku, quantity });
}
