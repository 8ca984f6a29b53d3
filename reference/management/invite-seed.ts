import type { ReferenceContext } from '../context.ts';
import type { Json } from './shapes.ts';

/** The well-known invite and a second one, both pending. */
export function seedInvites(ctx: ReferenceContext): Map<string, Json> {
  const invite = (id: string, org: string): Json => ({
    id,
    invited_member_id: null,
    invited_member_email: ctx.credentials.legacyEmail,
    organization_id: ctx.ids.accountId,
    organization_name: org,
    organization_is_enforcing_twofactor: false,
    roles: [
      {
        id: '05784afa30c1afe1440e79d9351c7430',
        name: 'Administrator',
        description: 'Can access the full account',
        permissions: {},
      },
    ],
    invited_by: 'owner@example.com',
    invited_on: '2026-01-01T00:00:00Z',
    expires_on: '2099-01-01T00:00:00Z',
    status: 'pending',
  });
  return new Map([
    [ctx.ids.inviteId, invite(ctx.ids.inviteId, 'Example Account')],
    ['9a7806061c88ada191ed06f989cc3dac', invite('9a7806061c88ada191ed06f989cc3dac', 'Second Account')],
  ]);
}
