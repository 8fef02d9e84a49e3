// The codes an MRZ may hold for the issuing state and the nationality (ICAO 9303 part 3, section 5):
// ISO 3166-1 alpha-3, Germany's 'D', ICAO's codes for organisations, stateless persons and
// refugees, the specimen state Utopia, and codes withdrawn from ISO that documents still in
// circulation may carry. Neither field has a check digit: a code read wrong ('OAZ' for 'CAN')
// would pass every check, so a code outside this list is not taken.

const ISO_3166_ALPHA_3 = `
AFG ALA ALB DZA ASM AND AGO AIA ATA ATG ARG ARM ABW AUS AUT AZE BHS BHR BGD BRB BLR BEL BLZ BEN BMU BTN BOL BES BIH
BWA BVT BRA IOT BRN BGR BFA BDI CPV KHM CMR CAN CYM CAF TCD CHL CHN CXR CCK COL COM COG COD COK CRI CIV HRV CUB CUW
CYP CZE DNK DJI DMA DOM ECU EGY SLV GNQ ERI EST SWZ ETH FLK FRO FJI FIN FRA GUF PYF ATF GAB GMB GEO DEU GHA GIB GRC
GRL GRD GLP GUM GTM GGY GIN GNB GUY HTI HMD VAT HND HKG HUN ISL IND IDN IRN IRQ IRL IMN ISR ITA JAM JPN JEY JOR KAZ
KEN KIR PRK KOR KWT KGZ LAO LVA LBN LSO LBR LBY LIE LTU LUX MAC MDG MWI MYS MDV MLI MLT MHL MTQ MRT MUS MYT MEX FSM
MDA MCO MNG MNE MSR MAR MOZ MMR NAM NRU NPL NLD NCL NZL NIC NER NGA NIU NFK MKD MNP NOR OMN PAK PLW PSE PAN PNG PRY
PER PHL PCN POL PRT PRI QAT REU ROU RUS RWA BLM SHN KNA LCA MAF SPM VCT WSM SMR STP SAU SEN SRB SYC SLE SGP SXM SVK
SVN SLB SOM ZAF SGS SSD ESP LKA SDN SUR SJM SWE CHE SYR TWN TJK TZA THA TLS TGO TKL TON TTO TUN TUR TKM TCA TUV UGA
UKR ARE GBR USA UMI URY UZB VUT VEN VNM VGB VIR WLF ESH YEM ZMB ZWE`;

/** ICAO's own codes: Germany, British nationals, the UN, organisations, stateless and refugees, Kosovo, Utopia. */
const ICAO_CODES = `D GBD GBN GBO GBP GBS UNO UNA UNK EUE XBA XIM XCC XCE XCO XDC XEC XES XGC XMP XOM XPO XXA XXB XXC XXX
RKS XKX UTO`;

/** Withdrawn from ISO 3166-1 but printed on documents that may still be shown. */
const WITHDRAWN_CODES = 'ANT BUR BYS CSK DDR NTZ ROM SCG TMP YUG ZAR';

export const MRZ_STATE_CODES: ReadonlySet<string> = new Set(
  `${ISO_3166_ALPHA_3} ${ICAO_CODES} ${WITHDRAWN_CODES}`.split(/\s+/).filter(Boolean),
);

/** The code an MRZ state field holds (its trailing fillers dropped: 'D<<' is 'D'). */
export const stateCodeOf = (field: string): string => field.replace(/<+$/, '');

/**
 * Is this MRZ state field (issuing state, nationality) a code a document may carry, or left all
 * fillers (not stated: Macao's identity card leaves the nationality so)?
 */
export function knownStateCode(field: string): boolean {
  const code = stateCodeOf(field);
  return code === '' || MRZ_STATE_CODES.has(code);
}

/** Letters the recogniser takes for one another in OCR-B capitals (and the filler for the thin ones). */
const LETTER_LOOK_ALIKES = ['OQDCGU', 'IL', 'HNM', 'VYU', 'EF', 'PR', 'KX', 'BE', 'L<', 'K<', 'C<'];

/**
 * A state field that is no code, repaired when exactly one known code is one look-alike away
 * ('CHF' for 'CHE'); unchanged otherwise (none, or several: the field is then reported unreadable).
 */
export function repairStateCode(field: string): string {
  if (knownStateCode(field)) return field;
  const found = new Set<string>();
  for (let i = 0; i < field.length; i++)
    for (const group of LETTER_LOOK_ALIKES) {
      if (!group.includes(field[i]!)) continue;
      for (const other of group) {
        if (other === field[i]) continue;
        const candidate = field.slice(0, i) + other + field.slice(i + 1);
        if (knownStateCode(candidate)) found.add(candidate);
      }
    }
  return found.size === 1 ? [...found][0]! : field;
}
