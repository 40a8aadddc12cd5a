#include "auto-collective.h"

#include "collective-protocol.h"

#include "ns3/log.h"
#include "ns3/uinteger.h"

#include <cmath>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("AutoCollectiveAlgorithm");
NS_OBJECT_ENSURE_REGISTERED(AutoCollectiveAlgorithm);

TypeId
AutoCollectiveAlgorithm::GetTypeId()
{
    static TypeId tid = TypeId("ns3::AutoCollectiveAlgorithm")
                            .SetParent<CollectiveAlgorithm>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<AutoCollectiveAlgorithm>();
    return tid;
}

bool
AutoCollectiveAlgorithm::Supports(CollectiveOperation) const
{
    return true;
}

NcclTuningModel::Choice
AutoCollectiveAlgorithm::Choose(const CollectiveRequest& r)
{
    return NcclTuningModel(NcclTuningModel::MakeGraph(r)).Choose(r.op, r.bytes);
}

CollectiveSchedule
AutoCollectiveAlgorithm::DoBuild(const CollectiveRequest& r) const
{
    const NcclTuningModel::Choice choice = Choose(r);
    NS_LOG_INFO("auto: " << CollectiveOperationName(r.op) << " of " << r.bytes << " B over "
                         << r.ranks << " ranks -> " << choice.algorithm << "/" << choice.protocol
                         << "/" << choice.channels << "ch, predicted " << choice.timeUs << " us");
    Ptr<CollectiveAlgorithm> algorithm = Create(choice.algorithm);
    algorithm->SetAttribute("Protocol",
                            TypeIdValue(CollectiveProtocol::LookupByShortName(choice.protocol)));
    // Point-to-point algorithms (pxn) have no channel count to set or record.
    const bool channels = algorithm->SetAttributeFailSafe("Channels", UintegerValue(choice.channels));
    CollectiveSchedule s = algorithm->Build(r);
    s.SetAlgorithm("auto:" + choice.algorithm + "/" + choice.protocol +
                   (channels ? "/" + std::to_string(choice.channels) + "ch" : ""));
    if (choice.timeUs > 0) // point-to-point has no prediction
    {
        s.SetPredictedTime(PicoSeconds(std::llround(choice.timeUs * 1e6)));
    }
    return s;
}

} // namespace ns3
