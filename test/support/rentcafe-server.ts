import { VendorServer, type Answer, type Call } from './crm-servers.ts';

/** One apartment as the availability call lists it (the fields RENTCafé documents that Showsuite reads, and a few more). */
export interface Apartment {
  ApartmentId: string;
  ApartmentName: string;
  FloorplanName: string;
  Beds: string;
  Baths: string;
  SQFT: string;
  MinimumRent: string;
  MaximumRent: string;
  Deposit: string;
  AvailableDate: string;
  UnitStatus: string;
}

/**
 * Yardi RENTCafé's API as far as it is publicly documented: `GET /rentcafeapi.aspx` with `requestType`, `apiToken`,
 * `companyCode` and `propertyCode` as query parameters (no header carries a credential). `apartmentavailability`
 * answers 200 with a JSON array of apartments, those with an `AvailableDate` only unless `showallunit=1`. A refusal
 * is HTTP 200 with `[{ "Error": "<code>" }]`: 1020 for a token, company or property it does not know (the code
 * integrators report for refused credentials); 1010 here for a request type it does not serve (a stand-in: the list of
 * codes is not public). `limitNext` answers 429 with Retry-After; `down` drops connections.
 */
export class RentcafeServer extends VendorServer {
  /** Apartments by property code. */
  readonly properties = new Map<string, Apartment[]>();

  constructor(
    readonly token: string,
    readonly companyCode: string,
  ) {
    super();
  }

  /** The properties' apartments, by property code; each apartment's missing fields get plausible values. */
  setApartments(propertyCode: string, apartments: (Partial<Apartment> & { ApartmentName: string })[]) {
    this.properties.set(
      propertyCode,
      apartments.map((a, i) => ({
        ApartmentId: String(1000 + i),
        FloorplanName: 'A1',
        Beds: '1',
        Baths: '1.00',
        SQFT: '750',
        MinimumRent: '0',
        MaximumRent: '0',
        Deposit: '500',
        AvailableDate: '',
        UnitStatus: 'Occupied No Notice',
        ...a,
      })),
    );
  }

  protected isAuthCall() {
    return false;
  }
  protected tooMany() {
    return [{ Error: 'Too many requests' }];
  }
  protected answer(call: Call): Answer {
    const url = new URL(call.path, 'http://rentcafe.invalid');
    if (call.method !== 'GET' || url.pathname.toLowerCase() !== '/rentcafeapi.aspx') return { status: 404, body: { Message: 'Not found' } };
    const q = url.searchParams;
    if ((q.get('requestType') ?? '').toLowerCase() !== 'apartmentavailability') return { status: 200, body: [{ Error: '1010' }] };
    const apartments = this.properties.get(q.get('propertyCode') ?? '');
    if (q.get('apiToken') !== this.token || q.get('companyCode') !== this.companyCode || !apartments) return { status: 200, body: [{ Error: '1020' }] };
    const all = q.get('showallunit') === '1';
    return { status: 200, body: apartments.filter((a) => all || a.AvailableDate !== '') };
  }
}
