import type { ScreenCopy } from '../types';

export const unavailable: ScreenCopy = {
  kind: 'unavailable',
  heading: 'Der Dienst ist leider nicht verfügbar',
  paragraphs: [
    'Das liegt nicht an Ihnen: Der Dienst antwortet im Moment nicht.',
    'Diese Seite versucht es von selbst noch einmal und zeigt Ihnen das Gewünschte, sobald der Dienst wieder da ist.',
  ],
};
