import { describe, expect, it } from 'vitest';
import { MIN_PASSWORD_LENGTH, passwordProblem } from '../../src/core/accounts/password-policy.js';

// Fast tier: the password rule alone (the sign-up page's answers are tested through HTTP in oidc.test.ts).
describe('passwordProblem', () => {
  it('wants at least 10 characters, counted as characters rather than bytes', () => {
    expect(MIN_PASSWORD_LENGTH).toBe(10);
    expect(passwordProblem('nine-char')).toContain('at least 10');
    expect(passwordProblem('ten-chars!')).toBeNull();
    expect(passwordProblem('😀😀😀😀😀😀😀😀😀')).toContain('at least 10'); // 9 characters, 36 bytes
  });

  it('refuses the passwords most common in leaks, whatever their case', () => {
    for (const common of ['1234567890', 'qwertyuiop', 'password123', 'PassWord123', 'basketball'])
      expect(passwordProblem(common), common).toContain('most common');
    expect(passwordProblem('violet elephant tuesday')).toBeNull();
  });
});
