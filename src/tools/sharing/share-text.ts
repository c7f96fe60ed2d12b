import { quote } from '../../text.js';

/** `role "admin"`, or the default role that a null role means (spec 2.4: members get the default user role). */
export const roleText = (role: string | null | undefined) => (role ? `role ${quote(role, 100)}` : 'default role (user)');
