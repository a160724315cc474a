"""Regions as the providers name them, with a readable place where the provider's own
documentation gives one: ``us-east-1`` → "us-east-1 (US East (N. Virginia))".

A small sourced mapping for the hyperscaler regions that appear in the bundled price data
(read 2026-12-03); a region not in it is shown as the code, as is. A zone written after
its region (``us-central1/us-central1-a``, as SkyPilot's rows carry it) takes its region's
place. Nothing here is guessed from the code's letters.

Sources:

- AWS: the Amazon EC2 User Guide, "Regions and Zones", table "Code / Name / Opt-in status"
  (:data:`AWS_SOURCE`): the Region's name as AWS writes it.
- Azure: Microsoft Learn, "Azure regions list" (:data:`AZURE_SOURCE`): the region's display
  name and its physical location (programmatic name = the display name lower-cased without spaces).
- Google Cloud: Google Cloud documentation's region table (:data:`GOOGLE_SOURCE`): region name and location.
"""

from __future__ import annotations

AWS_SOURCE = "https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/using-regions-availability-zones.html"
AZURE_SOURCE = "https://learn.microsoft.com/azure/reliability/regions-list"
GOOGLE_SOURCE = "https://cloud.google.com/anthos/clusters/docs/bare-metal/1.16/reference/supported-regions-on-prem-api"

_AWS = {
    "us-east-1": "US East (N. Virginia)",
    "us-east-2": "US East (Ohio)",
    "us-west-1": "US West (N. California)",
    "us-west-2": "US West (Oregon)",
    "af-south-1": "Africa (Cape Town)",
    "ap-east-1": "Asia Pacific (Hong Kong)",
    "ap-south-1": "Asia Pacific (Mumbai)",
    "ap-northeast-1": "Asia Pacific (Tokyo)",
    "ap-northeast-2": "Asia Pacific (Seoul)",
    "ap-northeast-3": "Asia Pacific (Osaka)",
    "ap-southeast-1": "Asia Pacific (Singapore)",
    "ap-southeast-2": "Asia Pacific (Sydney)",
    "ap-southeast-3": "Asia Pacific (Jakarta)",
    "ap-southeast-4": "Asia Pacific (Melbourne)",
    "ca-central-1": "Canada (Central)",
    "eu-central-1": "Europe (Frankfurt)",
    "eu-north-1": "Europe (Stockholm)",
    "eu-south-1": "Europe (Milan)",
    "eu-west-1": "Europe (Ireland)",
    "eu-west-2": "Europe (London)",
    "eu-west-3": "Europe (Paris)",
    "me-south-1": "Middle East (Bahrain)",
    "sa-east-1": "South America (São Paulo)",
}

_AZURE = {  # programmatic name: display name, physical location
    "australiaeast": "Australia East, New South Wales",
    "australiasoutheast": "Australia Southeast, Victoria",
    "brazilsouth": "Brazil South, Sao Paulo State",
    "canadacentral": "Canada Central, Toronto",
    "canadaeast": "Canada East, Quebec",
    "centralindia": "Central India, Pune",
    "centralus": "Central US, Iowa",
    "eastus": "East US, Virginia",
    "eastus2": "East US 2, Virginia",
    "francecentral": "France Central, Paris",
    "francesouth": "France South, Marseille",
    "germanynorth": "Germany North, Berlin",
    "germanywestcentral": "Germany West Central, Frankfurt",
    "italynorth": "Italy North, Milan",
    "japaneast": "Japan East, Tokyo, Saitama",
    "japanwest": "Japan West, Osaka",
    "koreacentral": "Korea Central, Seoul",
    "koreasouth": "Korea South, Busan",
    "mexicocentral": "Mexico Central, Querétaro State",
    "northcentralus": "North Central US, Illinois",
    "northeurope": "North Europe, Ireland",
    "norwayeast": "Norway East, Norway",
    "polandcentral": "Poland Central, Warsaw",
    "southafricanorth": "South Africa North, Johannesburg",
    "southafricawest": "South Africa West, Cape Town",
    "southcentralus": "South Central US, Texas",
    "southeastasia": "Southeast Asia, Singapore",
    "southindia": "South India, Chennai",
    "spaincentral": "Spain Central, Madrid",
    "swedencentral": "Sweden Central, Gävle",
    "switzerlandnorth": "Switzerland North, Zurich",
    "switzerlandwest": "Switzerland West, Geneva",
    "uaecentral": "UAE Central, Abu Dhabi",
    "uaenorth": "UAE North, Dubai",
    "uksouth": "UK South, London",
    "ukwest": "UK West, Cardiff",
    "westcentralus": "West Central US, Wyoming",
    "westeurope": "West Europe, Netherlands",
    "westus": "West US, California",
    "westus2": "West US 2, Washington",
    "westus3": "West US 3, Phoenix",
}

_GOOGLE = {
    "asia-east1": "Changhua County, Taiwan",
    "asia-northeast1": "Tokyo, Japan",
    "asia-northeast3": "Seoul, South Korea",
    "asia-south1": "Mumbai, India",
    "asia-southeast1": "Jurong West, Singapore",
    "australia-southeast1": "Sydney, Australia",
    "europe-north1": "Hamina, Finland",
    "europe-west1": "St. Ghislain, Belgium",
    "europe-west2": "London, England",
    "europe-west3": "Frankfurt, Germany",
    "europe-west4": "Eemshaven, Netherlands",
    "europe-west6": "Zurich, Switzerland",
    "me-central2": "Dammam, Saudi Arabia",
    "me-west1": "Tel Aviv, Israel",
    "northamerica-northeast2": "Toronto, Ontario",
    "southamerica-west1": "Santiago, Chile",
    "us-central1": "Council Bluffs, Iowa",
    "us-east1": "Moncks Corner, South Carolina",
    "us-east4": "Ashburn, Virginia",
    "us-east5": "Columbus, Ohio",
    "us-south1": "Dallas, Texas",
    "us-west1": "The Dalles, Oregon",
    "us-west3": "Salt Lake City, Utah",
    "us-west4": "Las Vegas, Nevada",
}

PLACES: dict[str, tuple[dict[str, str], str]] = {
    "aws": (_AWS, AWS_SOURCE),
    "azure": (_AZURE, AZURE_SOURCE),
    "google-cloud": (_GOOGLE, GOOGLE_SOURCE),
}
"""Provider id → (region code → readable place, the page it was read from)."""

NOT_STATED = "not stated"


def region_place(provider: str, region: str | None) -> str | None:
    """The readable place of ``region`` at ``provider`` (its region part, before any ``/zone``), or None where not known."""
    places, _ = PLACES.get(provider, ({}, ""))
    return places.get((region or "").split("/")[0].strip())


def region_label(provider: str, region: str | None) -> str:
    """``region`` as the provider names it, with its place where known: "us-east-1 (US East (N.
    Virginia))", "us-central1/us-central1-a (Council Bluffs, Iowa)"; the code as is when the
    place is not known; "not stated" for none."""
    code = (region or "").strip()
    if not code or code.lower() == NOT_STATED:
        return NOT_STATED
    place = region_place(provider, code)
    return f"{code} ({place})" if place and place != code else code


__all__ = ["AWS_SOURCE", "AZURE_SOURCE", "GOOGLE_SOURCE", "NOT_STATED", "PLACES", "region_label", "region_place"]
