// The "link_events" section: a list of links taken down or brought up at given times.

#include "../scenario-keys.h"
#include "../scenario-sections.h"

using namespace ns3;
using nlohmann::json;

namespace aifabric
{

namespace
{

const WordKey kState{"state", {"down", "up"}, "down", "What happens to the link."};
const TimeKey kAt{"at", "0s", "When."};

/** The keys of one link event (link_events[]). */
SectionSchema
LinkEventSchema()
{
    SectionSchema schema("link_events");
    schema
        .Key("link", "a link id or name by its ends (\"p0e0-p0a1\", links.csv's name column)",
             "required", "The link (both directions) that goes down or comes up.")
        .Key(kState)
        .Key(kAt);
    return schema;
}

void
BuildLinkEvents(const json& doc, Scenario& s)
{
    if (!doc.contains("link_events"))
    {
        return;
    }
    const json& events = doc.at("link_events");
    if (!events.is_array())
    {
        Fail("link_events", events, "must be an array of {link, at, state}");
    }
    for (std::size_t i = 0; i < events.size(); ++i)
    {
        const json& e = events[i];
        const std::string w = "link_events[" + std::to_string(i) + "]";
        LinkEventSchema().Apply(e, w);
        const uint32_t link = GetLink(e, w, "link", s.topology);
        s.linkEvents.push_back({link, Get(e, w, kAt), Get(e, w, kState) == "up"});
    }
}

} // namespace

ScenarioSection
LinkEventsSection()
{
    ScenarioSection section;
    section.keys = {"link_events"};
    section.build = &BuildLinkEvents;
    section.schemas = [](Scenario&) { return std::vector<SectionSchema>{LinkEventSchema()}; };
    return section;
}

} // namespace aifabric
