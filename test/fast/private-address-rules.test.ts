// The one rule that decides whether a webhook destination is an address of our own network
// (`isPrivateAddress`), in milliseconds: tenancy applies it to an IP literal when a destination is
// approved, and the delivery applies it again to the address each connection is made to. The
// approval through GraphQL and the refused delivery run in webhook-destinations.test.ts.
import { describe, expect, it } from 'vitest';
import { isPrivateAddress, PrivateDestination } from '../../src/core/net/destinations.js';

describe('isPrivateAddress', () => {
  it('refuses loopback, private, link-local, carrier-grade NAT and reserved IPv4', () => {
    for (const ip of [
      '127.0.0.1',
      '127.1.2.3',
      '10.0.0.1',
      '172.16.5.4',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '224.0.0.1',
      '255.255.255.255',
    ]) {
      expect(isPrivateAddress(ip), ip).toBe(true);
    }
  });

  it('refuses loopback, unique-local, link-local and multicast IPv6, a zone id included', () => {
    for (const ip of ['::1', '::', 'fd00::1', 'fc12:3456::1', 'fe80::1', 'fe80::1%eth0', 'ff02::1'])
      expect(isPrivateAddress(ip), ip).toBe(true);
  });

  it('judges an IPv6 address that carries an IPv4 one by that IPv4 address, in every spelling', () => {
    // What the URL parser makes of https://[::127.0.0.1]/ and the other spellings of 127.0.0.1 and 10.0.0.1.
    for (const ip of [
      '::127.0.0.1',
      '::7f00:1',
      '::ffff:127.0.0.1',
      '::ffff:7f00:1',
      '::ffff:0:7f00:1',
      '::ffff:0:127.0.0.1',
      '2002:7f00:1::',
      '2002:7f00:0001:0:0:0:0:1',
      '2002:a00:1::1',
      '::ffff:a9fe:a9fe',
    ]) {
      expect(isPrivateAddress(ip), ip).toBe(true);
    }
    // The same encodings of a public address are public.
    for (const ip of ['::ffff:8.8.8.8', '::ffff:808:808', '::808:808', '2002:808:808::1'])
      expect(isPrivateAddress(ip), ip).toBe(false);
  });

  it('refuses the NAT64 and Teredo prefixes whole: a translator or relay of ours would carry them to any IPv4 address', () => {
    for (const ip of [
      '64:ff9b::7f00:1',
      '64:ff9b::808:808',
      '64:ff9b:1::a00:1',
      '2001::1',
      '2001:0:4136:e378:8000:63bf:3fff:fdd2',
    ])
      expect(isPrivateAddress(ip), ip).toBe(true);
  });

  it('accepts public addresses, and treats anything that is not an IP literal as nothing to vouch for', () => {
    for (const ip of ['8.8.8.8', '93.184.216.34', '2606:4700:4700::1111', '2a00:1450:4001:80b::200e'])
      expect(isPrivateAddress(ip), ip).toBe(false);
    for (const text of ['localhost', 'hooks.example.com', '', '127.0.0.1.example.com'])
      expect(isPrivateAddress(text), text).toBe(true);
  });
});

describe('a refused destination', () => {
  it('says "refused: private address" and carries neither the name nor what it resolved to', () => {
    const refused = new PrivateDestination();
    expect(refused.message).toBe('refused: private address');
    expect({ ...refused }).toEqual({ name: 'PrivateDestination' }); // what a log serialiser would print beside the message
  });
});
