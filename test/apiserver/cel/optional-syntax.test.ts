import { rewriteOptionalSyntax } from '../../../lib/apiserver/cel/optional-syntax';

describe('rewriteOptionalSyntax', () => {
  test.each([
    ['self.a.b', 'self.a.b'],
    ['self.?a', "self.__optSelect__('a')"],
    ['self.?a.b.orValue(1)', "self.__optSelect__('a').__optChainSelect__('b').orValue(1)"],
    ["self.m[?'k'].orValue('')", "self.m.__optIndex__('k').orValue('')"],
    ['self.l[?self.l[0]]', 'self.l.__optIndex__(self.l[0])'],
    ["'x.?y' + self.?a.orValue('')", "'x.?y' + self.__optSelect__('a').orValue('')"],
    ['self.?a.hasValue() && self.b.c', "self.__optSelect__('a').hasValue() && self.b.c"],
    ['1.5 + 2.0', '1.5 + 2.0'],
  ])('%s', (source, expected) => {
    expect(rewriteOptionalSyntax(source)).toBe(expected);
  });
});
