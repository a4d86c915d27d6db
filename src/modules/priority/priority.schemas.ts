import { Type } from '@sinclair/typebox';

/** A unit's waiting list: its waitlist entries (leads), first in rank first. */
export const WaitingListSchema = Type.Array(Type.Ref('Lead'));
