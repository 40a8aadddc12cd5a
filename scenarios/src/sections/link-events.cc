// The "link_events" section: a list of links taken down or brought up at given times.

#include "../scenario-keys.h"
#include "../scenario-sections.h"

using namespace ns3;
using nlohmann::json;

namespace aifabric
{

namespace
{

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
        CheckKeys(e, w, {"link", "at", "state"});
        const uint32_t link = GetLink(e, w, "link", s.topology);
        const std::string state = GetString(e, w, "state", "down");
        if (state != "down" && state != "up")
        {
            Fail(w + ".state", e.at("state"), "allowed: \"down\", \"up\"");
        }
        s.linkEvents.push_back({link, GetTime(e, w, "at", Time(0)), state == "up"});
    }
}

} // namespace

ScenarioSection
LinkEventsSection()
{
    ScenarioSection section;
    section.keys = {"link_events"};
    section.build = &BuildLinkEvents;
    section.schemas = [](Scenario&) { return std::vector<SectionSchema>{}; };
    return section;
}

} // namespace aifabric
