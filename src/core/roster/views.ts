import type { Member } from './entities.js';

// The spec's Member object. `active` is derived from the status, never stored, so it cannot drift.

export type MemberFields = Pick<Member, 'id' | 'memberId' | 'firstName' | 'lastName' | 'email' | 'role' | 'status' | 'svcId' | 'createdAt'>;

export const memberView = (member: MemberFields) => ({
  id: member.id,
  member_id: member.memberId,
  first_name: member.firstName,
  last_name: member.lastName,
  email: member.email,
  role: member.role,
  status: member.status,
  svc_id: member.svcId ?? null,
  active: member.status === 'active',
  created_at: new Date(member.createdAt).toISOString(),
});
export type MemberView = ReturnType<typeof memberView>;
