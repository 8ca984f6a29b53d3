import type { ReferenceContext } from '../context.ts';
import type { Json, Zone } from './shapes.ts';

function certificate(
  id: string,
  zone: Zone,
  hosts: string[],
  signature: string,
  priority: number | null,
): Json {
  return {
    id,
    hosts,
    issuer: 'GoogleTrustServices',
    signature,
    status: 'active',
    bundle_method: 'ubiquitous',
    zone_id: zone.id,
    uploaded_on: '2026-01-01T00:00:00Z',
    modified_on: '2026-01-01T00:00:00Z',
    expires_on: '2026-04-01T00:00:00Z',
    priority,
  };
}

/** An active universal pack (the well-known id), an active advanced pack, and one still validating. */
export function seedCertificatePacks(ctx: ReferenceContext, zone: Zone): Json[] {
  const hosts = [zone.name, `*.${zone.name}`];
  return [
    {
      id: ctx.ids.certificatePackId,
      type: 'universal',
      hosts,
      primary_certificate: '7e7b8deba8538af625850b7b2530034c',
      status: 'active',
      certificates: [
        certificate('7e7b8deba8538af625850b7b2530034c', zone, hosts, 'ECDSAWithSHA256', 1),
        certificate('8f8c9efcb9649ba736961c8c3641145d', zone, hosts, 'SHA256WithRSA', 2),
      ],
      created_on: '2026-01-01T00:00:00Z',
      validity_days: 90,
      validation_method: 'txt',
      certificate_authority: 'google',
    },
    {
      id: 'a77f8bd7-3b47-46b4-a6f1-75cf98109948',
      type: 'advanced',
      hosts: [zone.name, `api.${zone.name}`],
      primary_certificate: '1b2c3d4e5f60718293a4b5c6d7e8f901',
      status: 'active',
      certificates: [
        certificate(
          '1b2c3d4e5f60718293a4b5c6d7e8f901',
          zone,
          [zone.name, `api.${zone.name}`],
          'ECDSAWithSHA256',
          null,
        ),
      ],
      created_on: '2026-02-01T00:00:00Z',
      validity_days: 30,
      validation_method: 'http',
      certificate_authority: 'lets_encrypt',
    },
    {
      id: '5d0e4a7c-9b1f-4c2e-8a3d-6f7b8c9d0e1f',
      type: 'advanced',
      hosts: [zone.name, `shop.${zone.name}`],
      primary_certificate: '0a1b2c3d4e5f60718293a4b5c6d7e8f9',
      status: 'pending_validation',
      certificates: [],
      created_on: '2026-03-01T00:00:00Z',
      validity_days: 90,
      validation_method: 'txt',
      certificate_authority: 'lets_encrypt',
    },
  ];
}
